// SharedLibraryPlugin: one executor plugin instance that lives in a shared library (or in a
// statically linked plugin using the same C ABI). Translates Execute into the JSON request and
// response of include/trimtab/plugin.h. Created by the factories shared_library_loader.cc
// registers; not used directly.
//
// Thread-safety: Execute may run concurrently if the library's execute() allows it.
#pragma once

#include <memory>
#include <string>

#include "core/chain/executor_plugin.h"
#include "trimtab/plugin.h"

namespace trimtab::plugins {

// Keeps a dlopen()ed library loaded; null handle for statically linked plugins.
class LibraryHandle {
 public:
  LibraryHandle(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  ~LibraryHandle();
  LibraryHandle(const LibraryHandle&) = delete;
  LibraryHandle& operator=(const LibraryHandle&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_;
};

class SharedLibraryPlugin final : public core::ExecutorPlugin {
 public:
  // REQUIRES: `instance` was returned by descriptor->create.
  SharedLibraryPlugin(core::PluginIdentity identity, std::shared_ptr<LibraryHandle> library,
                      const trimtab_executor_plugin_v1* descriptor, void* instance)
      : ExecutorPlugin(std::move(identity)),
        library_(std::move(library)),
        descriptor_(descriptor),
        instance_(instance) {}
  ~SharedLibraryPlugin() override;

  StatusOr<core::ExecutorResult> Execute(const core::ExecutorContext& context,
                                         const core::ScalingSummaries& summaries,
                                         core::CycleState& cycle, Json& plugin_state) override;

 private:
  std::shared_ptr<LibraryHandle> library_;  // declared first: destroyed last
  const trimtab_executor_plugin_v1* descriptor_;
  void* instance_;
};

}  // namespace trimtab::plugins
