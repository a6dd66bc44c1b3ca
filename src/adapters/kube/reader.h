// Reader: read access to Kubernetes objects, implemented both by the live KubeClient and by the
// informer cache (ObjectStore), so controllers can be pointed at either (controller-runtime's
// client.Reader). Objects are JSON documents as the API server returns them.
//
// Thread-safety: implementations are safe for concurrent use.
#pragma once

#include <string_view>
#include <vector>

#include "adapters/kube/object.h"
#include "common/json.h"
#include "common/label_selector.h"
#include "common/status.h"

namespace trimtab::kube {

struct ReadOptions {
  LabelSelector labels;  // default: everything
  FieldSelector fields;  // default: everything
};

class Reader {
 public:
  virtual ~Reader() = default;
  // kNotFound when absent. `ns` is ignored for cluster-scoped resources.
  virtual StatusOr<Json> Get(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view name) const = 0;
  // Items sorted by key ("ns/name"). `ns` "" means all namespaces.
  virtual StatusOr<std::vector<Json>> List(const GroupVersionResource& gvr, std::string_view ns,
                                           const ReadOptions& options) const = 0;
};

}  // namespace trimtab::kube
