// Loads shared-library executor plugins (include/trimtab/plugin.h) and registers their plugin
// types into an ExecutorPluginRegistry, so they are configured and chained exactly like built-in
// plugins ({"type": "<name from the library>", ...}).
//
// Every failure is a Status naming the file and the process keeps running: a file that cannot be
// opened, a missing entry point, a different ABI version, a malformed or duplicate registration,
// a create() that fails. At run time, a NULL, unparsable or wrongly shaped response of execute()
// is returned as an error naming the file, which the chain records as a veto.
//
// A library is opened with RTLD_NOW | RTLD_LOCAL, so its symbols never resolve another plugin's.
// It stays loaded while a registered factory or a created instance still refers to it.
//
// Usage:
//   TRIMTAB_RETURN_IF_ERROR(LoadSharedLibraryPlugin("/plugins/libcap.so", registry));
//   LoadReport report = LoadPluginDirectory("/etc/trimtab/plugins", registry);
//   for (const Status& s : report.failures) spdlog::warn("{}", s.ToString());
//
// Thread-safety: load at start-up from one thread; created plugins may Execute concurrently if
// the library allows it (the ABI requires it).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "core/chain/plugin_registry.h"
#include "trimtab/plugin.h"

namespace trimtab::plugins {

// Opens `path`, checks the ABI version, and registers every plugin type the library declares
// (all or none). Returns the registered type names.
StatusOr<std::vector<std::string>> LoadSharedLibraryPlugin(const std::string& path,
                                                           core::ExecutorPluginRegistry& registry);

// Registers a plugin linked into the program: `init` is the function the plugin passes to
// TRIMTAB_PLUGIN_ENTRY. `label` names it in errors and as the registry origin.
StatusOr<std::vector<std::string>> RegisterStaticPlugin(trimtab_plugin_init_fn init,
                                                        const std::string& label,
                                                        core::ExecutorPluginRegistry& registry);

struct LoadReport {
  std::vector<std::string> loaded_files;  // in load order (sorted by file name)
  std::vector<Status> failures;           // one per refused file, each naming it
};

// Loads every "*.so" file of `directory` in file name order. A refused file does not stop the
// others. A missing or unreadable directory is one failure.
LoadReport LoadPluginDirectory(const std::string& directory,
                               core::ExecutorPluginRegistry& registry);

}  // namespace trimtab::plugins
