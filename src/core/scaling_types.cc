#include "core/scaling_types.h"

namespace trimtab::core {

const VertexInfo* JobTopology::Find(const VertexId& id) const {
  for (const VertexInfo& v : vertices) {
    if (v.id == id) return &v;
  }
  return nullptr;
}

std::vector<VertexId> JobTopology::Inputs(const VertexId& id) const {
  std::vector<VertexId> out;
  for (const Edge& e : edges) {
    if (e.to == id) out.push_back(e.from);
  }
  return out;
}

std::vector<VertexId> JobTopology::Outputs(const VertexId& id) const {
  std::vector<VertexId> out;
  for (const Edge& e : edges) {
    if (e.from == id) out.push_back(e.to);
  }
  return out;
}

}  // namespace trimtab::core
